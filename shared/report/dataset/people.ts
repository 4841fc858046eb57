/**
 * User ids to display names, learnt from whatever a run has already read. Strategic themes name
 * their owners by user id only, while risks carry `{ id, user }` for the responsible person, watchers
 * and user-picker fields; the risks dataset runs first, so a theme's owners can be shown by name
 * whenever any risk of the run mentions them. An id nobody named stays an id.
 */
export class PeopleDirectory {
  readonly #names = new Map<string, string>();

  learn(id: string | null | undefined, name: string | null | undefined): void {
    if (id && name && !this.#names.has(id)) this.#names.set(id, name);
  }

  /** Every id the run met with its name. */
  known(): Record<string, string> {
    return Object.fromEntries(this.#names);
  }

  /** The display name of `id`, or the id itself when no dataset of the run named it. */
  name(id: string): string {
    return this.#names.get(id) ?? id;
  }
}
