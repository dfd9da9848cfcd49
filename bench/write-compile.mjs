// Service CPU to build and compile a payment's final write on PostgreSQL (the commission and event inserts
// riding with the counter upserts), without a database: a stub driver answers every query. Runs against
// the built dist/ (npm run build first); BENCH_DIST=/path/to/other/dist for another build (e.g. main before
// a change, to compare in the same session).
//   node bench/write-compile.mjs
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';

const DIST = process.env.BENCH_DIST ? resolve(process.env.BENCH_DIST) : resolve(import.meta.dirname, '../dist');
const load = (path) => import(pathToFileURL(resolve(DIST, path)).href);
// The layout moved into areas (loop/, platform/) in 2026-11; BENCH_DIST may name a build from before.
const loadEither = (now, before) => load(now).catch((err) => (err.code === 'ERR_MODULE_NOT_FOUND' ? load(before) : Promise.reject(err)));
const ledger = await loadEither('loop/ledger/ledger.js', 'ledger/ledger.js');
const executor = await load('loop/ledger/executor.js').catch(() => undefined);
const { eventsInsert } = await loadEither('platform/events/outbox.js', 'events/outbox.js');
// The commission's insert moved into the ledger with its other writes (issue 35); BENCH_DIST may name a build from before.
const { commissionInsert } =
  (await load('loop/ledger/commission-writes.js').catch(() => undefined)) ?? (await loadEither('loop/commissions/commission.repository.js', 'commissions/commission.repository.js'));

const connection = {
  async executeQuery() {
    return { rows: [{ made: 1 }], numAffectedRows: 1n };
  },
  async *streamQuery() {},
};
const driver = {
  async init() {},
  async acquireConnection() {
    return connection;
  },
  async beginTransaction() {},
  async commitTransaction() {},
  async rollbackTransaction() {},
  async releaseConnection() {},
  async destroy() {},
};
const db = new Kysely({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => driver,
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});
const now = 1_790_000_000_000;
const clock = { now: () => now };
const order = { order_id: 'o-1', email: 'a@svc.test', amount_cents: 1999, product: 'bench', status: 'paid', ref_code: 'ref', created_at: now, paid_at: now, refunded_cents: 0 };
const sale = {
  ...{ id: 'com_1', order_id: 'o-1', ref_code: 'ref', amount_cents: 1999, rate_bp: 1000, flat_cents: null, commission_cents: 200, status: 'pending', kind: 'sale' },
  ...{ rule_id: null, void_reason: null, approve_due_at: null, created_at: now, updated_at: now, approved_at: null, paid_at: null, voided_at: null },
};
const events = [
  { type: 'order.paid', data: { order: 'o-1' } },
  { type: 'commission.created', data: { commission: 'com_1' } },
];
async function payWrite() {
  if (executor) {
    // the plan an attributed payment makes (order.service.ts payIn), written by the ledger's one executor
    const plan = { inserts: [commissionInsert(db, sale)], counters: ledger.attributedOrderPaid('ref', order, sale), events };
    await executor.applyPlan(db, clock, plan);
    return;
  }
  const riders = [commissionInsert(db, sale), eventsInsert(db, clock, events)];
  // the ledger call of the build under test (renamed in 75060c5)
  if (ledger.attributedOrderPaid) await ledger.attributedOrderPaid(db, 'ref', order, sale, riders);
  else await ledger.commissionBooked(db, order, sale, riders);
}

const N = Number(process.env.BENCH_WRITES ?? 20_000);
for (let i = 0; i < Math.min(2_000, N); i++) await payWrite(); // warm up
for (let round = 1; round <= 3; round++) {
  const t0 = process.cpuUsage();
  for (let i = 0; i < N; i++) await payWrite();
  const used = process.cpuUsage(t0);
  console.log(`round ${round}: ${((used.user + used.system) / N).toFixed(1)} µs of CPU per payment write (build + compile), ${N} writes`);
}
