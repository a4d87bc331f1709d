/**
 * Which component shows which route. Each page is a module of pages/ loaded on first visit (its
 * own chunk), with a default export taking the route's fields as props.
 */
import type { ComponentChildren, ComponentType } from "preact";
import { useEffect, useErrorBoundary, useState } from "preact/hooks";
import type { Route } from "./routes.ts";
import { ErrorMessage, Loading } from "./ui.tsx";

// biome-ignore lint/suspicious/noExplicitAny: each page takes its own route's fields as props
type PageModule = { default: ComponentType<any> };

const PAGES: Readonly<Record<Route["page"], () => Promise<PageModule>>> = {
  overview: () => import("./pages/overview-page.tsx"),
  types: () => import("./pages/types-page.tsx"),
  type: () => import("./pages/type-page.tsx"),
  graph: () => import("./pages/graph-page.tsx"),
  resources: () => import("./pages/resources-page.tsx"),
  resource: () => import("./pages/resource-page.tsx"),
  provision: () => import("./pages/provision-page.tsx"),
  applications: () => import("./pages/applications-page.tsx"),
  activity: () => import("./pages/activity-page.tsx"),
  missing: () => import("./pages/missing-page.tsx"),
};

export function PageView({ route }: { route: Route }) {
  const [loaded, setLoaded] = useState<
    { page: Route["page"]; component: PageModule["default"] } | { page: Route["page"]; error: Error }
  >();
  useEffect(() => {
    let current = true;
    PAGES[route.page]().then(
      (module) => current && setLoaded({ page: route.page, component: module.default }),
      (error: Error) => current && setLoaded({ page: route.page, error }),
    );
    return () => {
      current = false;
    };
  }, [route.page]);
  if (!loaded || loaded.page !== route.page) return <Loading />;
  if ("error" in loaded) return <ErrorMessage error={loaded.error} />;
  const Page = loaded.component;
  // Keyed by the whole route: another type or resource is a fresh page, with fresh state (and a
  // page that failed to render gets another chance).
  return (
    <Contained key={JSON.stringify(route)}>
      <Page {...route} />
    </Contained>
  );
}

/** A page that throws while rendering shows its error, and the layout stays usable. */
function Contained({ children }: { children: ComponentChildren }) {
  const [error] = useErrorBoundary();
  if (error) return <ErrorMessage error={error instanceof Error ? error : new Error(String(error))} />;
  return <>{children}</>;
}
