/** An RFC 4180 reader for the tests (independent of src/exports): records of fields; fails on a bad file. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += text[i++];
      }
      if (i < text.length && text[i] !== ',' && text[i] !== '\r') throw new Error(`junk after a quoted field at ${i}`);
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r') {
        if (text[i] === '\n' || text[i] === '"') throw new Error(`bare ${JSON.stringify(text[i])} in an unquoted field at ${i}`);
        field += text[i++];
      }
    }
    record.push(field);
    field = '';
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (text.slice(i, i + 2) !== '\r\n') throw new Error(`a record must end with CRLF at ${i}`);
    i += 2;
    records.push(record);
    record = [];
  }
  return records;
}

/** The leaf property names of a JSON Schema object (from /openapi.json), nested objects as parent_child. */
export function documentedColumns(schema: Record<string, unknown>, prefix = ''): string[] {
  const anyOf = schema.anyOf as Record<string, unknown>[] | undefined;
  const object = anyOf ? anyOf.find((s) => s.type === 'object') : schema.type === 'object' ? schema : undefined;
  if (!object) return [prefix];
  return Object.entries(object.properties as Record<string, Record<string, unknown>>).flatMap(([k, s]) => documentedColumns(s, prefix ? `${prefix}_${k}` : k));
}

/** A JSON item flattened the same way (null nested objects and absent fields leave their columns empty). */
export function flattenItem(item: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) {
    const name = prefix ? `${prefix}_${k}` : k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) Object.assign(out, flattenItem(v as Record<string, unknown>, name));
    else out[name] = v;
  }
  return out;
}
