/** Small pieces every page uses: loading a value from the API, and showing a load or an error. */
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { ApsError } from "./api.ts";

export { valueText } from "./value-text.ts";

/** What {@link useLoad} gives: the value once loaded, or the error, and a way to load again. */
export interface Loaded<T> {
  readonly value?: T;
  readonly error?: Error;
  readonly loading: boolean;
  reload(): void;
}

/** Loads `load()` now and whenever a value of `deps` changes; a stale answer is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ value?: T; error?: Error; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (value) => current && setState({ value, loading: false }),
      (error: Error) => current && setState({ error, loading: false }),
    );
    return () => {
      current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...state, reload };
}

export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <p class="loading" role="status">
      {what}…
    </p>
  );
}

/** An error as the controller said it (class and message), as text. */
export function ErrorMessage({ error }: { error: Error }) {
  return (
    <div class="error" role="alert">
      {error instanceof ApsError && error.status ? `${error.status} ${error.type}: ` : ""}
      {error.message}
    </div>
  );
}

/** The value of `loaded`, or its loading note or error. */
export function WhenLoaded<T>({ loaded, children }: { loaded: Loaded<T>; children: (value: T) => ComponentChildren }) {
  if (loaded.error) return <ErrorMessage error={loaded.error} />;
  if (loaded.value === undefined) return <Loading />;
  return <>{children(loaded.value)}</>;
}

/** A table's head: one column header per name, in order. */
export function ColumnHeads({ names }: { names: readonly string[] }) {
  return (
    <thead>
      <tr>
        {names.map((name) => (
          <th key={name} scope="col">
            {name}
          </th>
        ))}
      </tr>
    </thead>
  );
}
