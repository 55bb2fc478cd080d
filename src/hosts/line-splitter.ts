// Splits a byte stream into text lines for spawn's onLine callback (handles chunks cut mid-line).

export class LineSplitter {
  private pending = '';
  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: string): void {
    const text = this.pending + chunk;
    const lines = text.split(/\r?\n/);
    this.pending = lines.pop() ?? '';
    for (const l of lines) this.onLine(l);
  }

  flush(): void {
    if (this.pending !== '') this.onLine(this.pending);
    this.pending = '';
  }
}
