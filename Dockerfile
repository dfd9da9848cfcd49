# svc in a container (CONTRACT §21; README, "Container"). `docker build .` or `podman build .`.
# Two stages on the official Node.js image: `build` installs every dependency and compiles dist/ and
# web/dist; the runtime stage gets only those two, package.json and the production dependencies, and
# runs as the image's non-root `node` user (uid 1000) with its data in the volume /data.
# better-sqlite3 ships its compiled binary inside its npm package, so no compiler is needed anywhere.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# Another registry (a mirror) for the build: --build-arg NPM_REGISTRY=https://…/
ARG NPM_REGISTRY=https://registry.npmjs.org/
COPY package.json package-lock.json ./
# Optional build secret `npm_ca`: a PEM bundle to trust as well, for a network whose proxy re-signs TLS
# (--secret id=npm_ca,src=/etc/ssl/certs/ca-certificates.crt). Without it nothing changes.
RUN --mount=type=cache,target=/root/.npm \
    --mount=type=secret,id=npm_ca,required=false \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm ci --no-audit --no-fund --registry="$NPM_REGISTRY"
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY web web
# Build, drop the dev dependencies, and trim better-sqlite3 to the one binary this platform loads (its
# SQLite sources and other platforms' binaries are a third of the production dependencies); then prove
# that the binary loads before anything is copied on.
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && cd node_modules/better-sqlite3 \
 && rm -rf deps src binding.gyp \
 && find prebuilds -name '*.node' ! -name "linux-$(node -p process.arch).node" -delete \
 && node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    SMTP_PORT=2525 \
    DATABASE_URL=sqlite:/data/svc.db
WORKDIR /app
# The code belongs to root and is read-only for the service; only /data is the service's to write.
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY --from=build /app/web/dist web/dist
# A named volume takes the owner of the image's /data, so the node user can write to it.
RUN mkdir /data && chown 1000:1000 /data
# Numeric, so that a runtime can check it is not root (Kubernetes' runAsNonRoot); 1000 is `node`.
USER 1000:1000
VOLUME ["/data"]
EXPOSE 8080 2525
# No curl in the slim image: Node.js asks /healthz itself.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/main.js"]
