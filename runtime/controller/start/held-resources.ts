/**
 * What a controller start has taken so far (the private umask, the data folder lock, the
 * database), given back newest first: at once when a later step fails, so the process can end
 * with one line, or by `close()`.
 */
export class HeldResources {
  private readonly releases: (() => void | Promise<void>)[] = [];

  hold(release: () => void | Promise<void>): void {
    this.releases.push(release);
  }

  /** Gives back everything held, newest first; a second call has nothing left to give. */
  async release(): Promise<void> {
    for (const release of this.releases.splice(0).reverse()) await release();
  }
}
