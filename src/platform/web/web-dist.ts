import { fileURLToPath } from 'node:url';

/** Vite's output; the same relative path works from src/web (tests) and dist/web (npm start). */
export const WEB_DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));
