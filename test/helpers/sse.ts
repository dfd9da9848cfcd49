export interface SseEvent {
  /** The event's type as an EventSource sees it: the `event:` field, else `message`. */
  type: string;
  /** The `event:` field as sent, if any. */
  event?: string;
  id?: string;
  data: string;
}

/**
 * An EventSource-like reader of Server-Sent Events over a fetch body: comments (heartbeats) and blocks
 * without data are skipped, multi-line data is joined; next() waits, bounded, for the next event.
 */
export function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    async next(timeoutMs = 5000): Promise<SseEvent> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        let sep = buffer.indexOf('\n\n');
        while (sep >= 0) {
          const block = buffer.slice(0, sep);
          buffer = buffer.slice(sep + 2);
          const data: string[] = [];
          let event: string | undefined;
          let id: string | undefined;
          for (const line of block.split('\n')) {
            if (line === '' || line.startsWith(':')) continue;
            const i = line.indexOf(':');
            const field = i < 0 ? line : line.slice(0, i);
            const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
            if (field === 'data') data.push(value);
            else if (field === 'event') event = value;
            else if (field === 'id') id = value;
          }
          if (data.length > 0) return { type: event ?? 'message', event, id, data: data.join('\n') };
          sep = buffer.indexOf('\n\n');
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error('no SSE event in time');
        const chunk = await Promise.race([reader.read(), new Promise<never>((_, rej) => setTimeout(() => rej(new Error('no SSE event in time')), left))]);
        if (chunk.done) throw new Error('stream ended');
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
}
