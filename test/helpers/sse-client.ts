/** A minimal SSE reader over fetch: yields parsed frames until the caller stops or time runs out. */
export interface SseFrame {
  id?: string;
  event?: string;
  data: string;
}

export async function openSse(url: string, headers: Record<string, string>, signal: AbortSignal) {
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  async function next(timeoutMs = 5000): Promise<SseFrame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const raw = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const frame: SseFrame = { data: '' };
        const data: string[] = [];
        for (const line of raw.split('\n')) {
          if (line.startsWith(':')) continue; // comment (heartbeat)
          const [field, ...rest] = line.split(':');
          const value = rest.join(':').replace(/^ /, '');
          if (field === 'id') frame.id = value;
          else if (field === 'event') frame.event = value;
          else if (field === 'data') data.push(value);
        }
        if (data.length === 0 && !frame.event) continue;
        frame.data = data.join('\n');
        return frame;
      }
      if (Date.now() > deadline) throw new Error('no SSE frame in time');
      const chunk = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('no SSE frame in time')), Math.max(1, deadline - Date.now())),
        ),
      ]);
      if (chunk.done) throw new Error('stream ended');
      buffer += chunk.value;
    }
  }
  return { status: res.status, headers: res.headers, next };
}
