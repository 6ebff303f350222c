/**
 * One shared connection to a session's AT-SPI bus for this process, made on first use and
 * made again when the bus daemon dropped it; a failed attempt is not kept, so the next use
 * tries again. Headless X11 desktops and sway sessions hand it to the apps they launch
 * (waiting for an app to register) and close it on release or stop.
 */
import { AtspiBus } from '../platform/linux/atspi/bus.js';

export class SharedA11yConnection {
  private conn: Promise<AtspiBus> | null = null;

  constructor(private readonly address: () => string) {}

  get(): Promise<AtspiBus> {
    if (!this.conn) {
      const conn = AtspiBus.connect(this.address());
      this.conn = conn;
      conn.catch(() => {
        if (this.conn === conn) this.conn = null;
      });
    }
    return this.conn.then((bus) => {
      if (!bus.isClosed) return bus;
      this.conn = null;
      return this.get();
    });
  }

  /** Disconnects, if connected; the next get() connects again. */
  close(): void {
    const conn = this.conn;
    this.conn = null;
    void conn?.then((b) => b.disconnect()).catch(() => undefined);
  }
}
