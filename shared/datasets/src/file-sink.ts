import type { FileHandle } from 'node:fs/promises';
import { ByteWriter } from 'hyparquet-writer';

/**
 * hyparquet-writer's byte sink, drained to a file after every row group
 * (ParquetWriter calls `flush()` then and awaits it), so the buffer holds one
 * row group at most. The library's own `fileWriter` appends synchronously.
 */
export class FileSink extends ByteWriter {
  readonly #handle: FileHandle;

  constructor(handle: FileHandle) {
    super(1 << 20);
    this.#handle = handle;
  }

  async flush(): Promise<void> {
    if (this.index === 0) return;
    // No copy needed: ParquetWriter awaits this before it encodes more bytes.
    await this.#handle.write(new Uint8Array(this.buffer, 0, this.index));
    this.index = 0;
  }

  override async finish(): Promise<void> {
    await this.flush();
    await this.#handle.close();
  }
}
