/**
 * The console app: sign-in when there is no token in sessionStorage, else the layout (header with
 * "Sign out", a nav landmark, the page of the location hash in `main`). Pages are loaded on first
 * visit (pages.ts), so the first load carries the layout and the page at hand only.
 */
import { render } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { whenSignedOut } from "./api.ts";
import { PageView } from "./pages.tsx";
import { href, parseRoute, type Route } from "./routes.ts";
import { SignIn } from "./sign-in.tsx";
import { clearToken, storedToken } from "./token.ts";

function App() {
  const [signedIn, setSignedIn] = useState(() => storedToken() !== undefined);
  useEffect(() => whenSignedOut(() => setSignedIn(false)), []);
  if (!signedIn) return <SignIn onSignedIn={() => setSignedIn(true)} />;
  return (
    <Layout
      onSignOut={() => {
        clearToken();
        setSignedIn(false);
      }}
    />
  );
}

/** The route of the location hash, following its changes. */
function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  return route;
}

const NAV: readonly { readonly label: string; readonly href: string; readonly pages: readonly Route["page"][] }[] = [
  { label: "Types", href: href.types(), pages: ["types", "type"] },
  { label: "Graph", href: href.graph(), pages: ["graph"] },
  { label: "Resources", href: href.resources(), pages: ["resources", "resource", "provision"] },
  { label: "Applications", href: href.applications(), pages: ["applications"] },
  { label: "Activity", href: href.activity(), pages: ["activity"] },
];

function Layout({ onSignOut }: { onSignOut: () => void }) {
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  // A new page moves focus to its content, so keyboard and screen-reader users start there.
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else main.current?.focus();
  }, [route]);
  return (
    <div class="layout">
      {/* biome-ignore lint/a11y/useValidAnchor: a skip link: its href names the target; the click moves focus there without changing the hash route */}
      <a
        class="skip-link"
        href="#content"
        onClick={(e) => {
          e.preventDefault();
          main.current?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href.overview()}>
          aps-gen console
        </a>
        <button type="button" class="secondary" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <nav class="side" aria-label="Console">
        <ul>
          {NAV.map((item) => (
            <li key={item.label}>
              <a href={item.href} aria-current={item.pages.includes(route.page) ? "page" : undefined}>
                {item.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="content" ref={main} tabIndex={-1}>
        <PageView route={route} />
      </main>
    </div>
  );
}

render(<App />, document.getElementById("app")!);
