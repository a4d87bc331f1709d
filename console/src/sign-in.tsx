/**
 * The sign-in page: a token (an administrator's from `aps-gen token`, or any account's or user's),
 * checked with one call before it is kept, so a mistyped token is told here and not on every page.
 */
import { useState } from "preact/hooks";
import { ApsError, getJson } from "./api.ts";
import { clearToken, saveToken } from "./token.ts";

export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const text = token.trim();
    if (!text) {
      setError("Enter a token.");
      return;
    }
    setBusy(true);
    setError(undefined);
    saveToken(text);
    try {
      // Any call that needs a token: the list of types, which every caller may read.
      await getJson("/aps/2/types", "limit(0,1)");
      onSignedIn();
    } catch (failure) {
      clearToken();
      setError(
        failure instanceof ApsError && failure.status === 401
          ? "The controller does not accept this token."
          : (failure as Error).message,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>aps-gen console</h1>
      <form onSubmit={submit} aria-label="Sign in">
        <label for="token">Token</label>
        <textarea
          id="token"
          name="token"
          rows={4}
          autoComplete="off"
          spellcheck={false}
          value={token}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "token-error" : undefined}
          onInput={(e) => setToken(e.currentTarget.value)}
        />
        {error && (
          <p id="token-error" role="alert" class="error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <p class="hint">
        The administrator's token is in the data folder (<code>.aps-data/admin.token</code>); <code>aps-gen token</code>{" "}
        makes others. It is kept in this tab only.
      </p>
    </main>
  );
}
