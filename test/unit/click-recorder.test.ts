import { describe, expect, it } from 'vitest';
import { ClickRecorder } from '../../src/loop/clicks/click-recorder.js';
import type { ClickBatchWriter, NewClick } from '../../src/loop/clicks/click.repository.js';

// The group commit behind /go (docs/api.md#click-log): at most `inFlight` batches written at once, each on a
// slot of its own, every click answered once, a failed batch failing only its own clicks.

const click = (ref_code: string, created_at = Date.UTC(2026, 0, 1, 12)): NewClick => ({ ref_code, created_at, ip_hash: null, user_agent: null, referer: null, network_click_ids: null });

/** A writer whose writes wait until released; records what it was given. */
function heldWriter(fail?: (batchNo: number) => boolean) {
  const writes: { size: number; slot: number; counts: number }[] = [];
  const waiting: (() => void)[] = [];
  let open = 0;
  let maxOpen = 0;
  const slotsOpen = new Set<number>();
  const write: ClickBatchWriter = async (batch, counts, slot) => {
    if (slotsOpen.has(slot)) throw new Error(`slot ${slot} used twice at once`);
    slotsOpen.add(slot);
    const n = writes.push({ size: batch.length, slot, counts: counts.reduce((s, c) => s + c.n, 0) });
    open++;
    maxOpen = Math.max(maxOpen, open);
    await new Promise<void>((resolve) => waiting.push(resolve));
    open--;
    slotsOpen.delete(slot);
    if (fail?.(n)) throw new Error(`batch ${n} failed`);
    return batch.map((w, i) => (w.wantId ? n * 1000 + i : null));
  };
  // releases every write until none has been open for a few turns of the event loop (the recorder starts
  // the next batch on a setImmediate of its own)
  const releaseAll = async () => {
    for (let idle = 0; idle < 3; ) {
      idle = waiting.length > 0 || open > 0 ? 0 : idle + 1;
      for (const release of waiting.splice(0)) release();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { write, writes, releaseAll, get maxOpen() {
    return maxOpen;
  } };
}

describe('ClickRecorder', () => {
  it('writes one batch at a time by default, the clicks that came meanwhile in the next', async () => {
    const w = heldWriter();
    const recorder = new ClickRecorder(w.write);
    const first = recorder.record(click('ann'), false);
    await new Promise((resolve) => setImmediate(resolve));
    const rest = Array.from({ length: 20 }, () => recorder.record(click('ann'), false));
    await new Promise((resolve) => setImmediate(resolve));
    expect(w.writes).toHaveLength(1);
    await w.releaseAll();
    expect(await Promise.all([first, ...rest])).toEqual(Array(21).fill(null));
    expect(w.maxOpen).toBe(1);
    expect(w.writes.map((b) => b.size)).toEqual([1, 20]);
    expect(w.writes.every((b) => b.slot === 0)).toBe(true);
  });

  it('keeps up to inFlight batches written at once, each on its own slot, and answers every click once', async () => {
    const w = heldWriter();
    const recorder = new ClickRecorder(w.write, 3);
    const answers: Promise<number | null>[] = [];
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 10; i++) answers.push(recorder.record(click(i % 2 ? 'ann' : 'bob'), i === 0));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(w.writes).toHaveLength(3);
    expect(new Set(w.writes.map((b) => b.slot))).toEqual(new Set([0, 1, 2]));
    await w.releaseAll();
    const ids = await Promise.all(answers);
    expect(ids).toHaveLength(60);
    expect(ids.filter((id) => id !== null)).toHaveLength(6);
    expect(w.maxOpen).toBe(3);
    expect(w.writes.reduce((s, b) => s + b.size, 0)).toBe(60);
    expect(w.writes.reduce((s, b) => s + b.counts, 0)).toBe(60);
  });

  it('cuts a long queue into batches of at most 500 that start on free slots at once', async () => {
    const w = heldWriter();
    const recorder = new ClickRecorder(w.write, 4);
    const answers = Array.from({ length: 1800 }, () => recorder.record(click('ann'), false));
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(w.writes.map((b) => b.size)).toEqual([500, 500, 500, 300]);
    await w.releaseAll();
    expect(await Promise.all(answers)).toHaveLength(1800);
  });

  it('a failed batch rejects its own clicks only; the slot is used again', async () => {
    const w = heldWriter((n) => n === 1);
    const recorder = new ClickRecorder(w.write, 2);
    const a = recorder.record(click('ann'), false);
    await new Promise((resolve) => setImmediate(resolve));
    const b = recorder.record(click('bob'), false);
    await new Promise((resolve) => setImmediate(resolve));
    const settled = Promise.allSettled([a, b]);
    await w.releaseAll();
    expect((await settled).map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    const c = recorder.record(click('cy'), false);
    await w.releaseAll();
    expect(await c).toBeNull();
  });

  it('refuses an inFlight that is not a whole number of at least 1', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => new ClickRecorder(heldWriter().write, bad)).toThrow(RangeError);
  });
});
