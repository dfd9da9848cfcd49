import { type Compilable, CompiledQuery } from 'kysely';
import { type Dialect, dialectOf, type Executor } from './database.js';

type Slot<Role extends string> = { readonly role: Role } | { readonly constant: unknown };

/**
 * A hot statement whose text depends only on the dialect: built through Kysely once per dialect with
 * stand-in values (building such a statement costs more than running it), then given its values by role.
 * Each compiled parameter equal to a stand-in takes that role's value; every stand-in must be among them
 * (`once`: exactly once). Any other parameter is a constant of the text, kept in its place, or with
 * `constants: false` an error (every value of the statement is a role).
 */
export function compiledPerDialect<Role extends string, Row>(
  what: string,
  standIns: Readonly<Record<Role, string | number>>,
  build: (db: Executor, standIns: Readonly<Record<Role, string | number>>) => Compilable<Row>,
  opts: { readonly constants: boolean; readonly once: boolean },
): (db: Executor, values: Readonly<Record<Role, unknown>>) => CompiledQuery<Row> {
  const roles = Object.keys(standIns) as Role[];
  const built = new Map<Dialect, { readonly text: string; readonly slots: readonly Slot<Role>[] }>();
  return (db, values) => {
    const dialect = dialectOf(db);
    let shape = built.get(dialect);
    if (shape === undefined) {
      const compiled = build(db, standIns).compile();
      const slots = compiled.parameters.map((p): Slot<Role> => {
        const role = roles.find((r) => standIns[r] === p);
        if (role !== undefined) return { role };
        if (!opts.constants) throw new Error(`${what}: a parameter with no role (${String(p)})`);
        return { constant: p };
      });
      for (const role of roles) {
        const n = slots.filter((s) => 'role' in s && s.role === role).length;
        if (n === 0 || (opts.once && n !== 1)) throw new Error(`${what}: the ${role} is not ${opts.once ? 'one' : 'a'} value of its statement`);
      }
      shape = { text: compiled.sql, slots };
      built.set(dialect, shape);
    }
    const { text, slots } = shape;
    return CompiledQuery.raw(text, slots.map((s) => ('role' in s ? values[s.role] : s.constant))) as CompiledQuery<Row>;
  };
}
