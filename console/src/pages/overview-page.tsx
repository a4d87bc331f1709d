/** The first page: what the controller holds, each count a link to its page. */
import { getPage } from "../api.ts";
import { href } from "../routes.ts";
import { useLoad, WhenLoaded } from "../ui.tsx";

export default function OverviewPage() {
  const types = useLoad(() => getPage<unknown>("/aps/2/types", "limit(0,1)"), []);
  return (
    <>
      <h1>Overview</h1>
      <WhenLoaded loaded={types}>
        {(page) => (
          <p>
            This controller knows <a href={href.types()}>{page.range.total} types</a>;{" "}
            <a href={href.graph()}>see how they relate</a>.
          </p>
        )}
      </WhenLoaded>
      <ul class="overview-links">
        <li>
          <a href={href.applications()}>Applications</a>: packages and their instances.
        </li>
        <li>
          <a href={href.activity()}>Activity</a>: tasks, event deliveries and the calls made to applications, live.
        </li>
      </ul>
    </>
  );
}
