import { href } from "../routes.ts";

/** A hash that names no page. */
export default function MissingPage({ hash }: { hash: string }) {
  return (
    <>
      <h1>No such page</h1>
      <p>
        The console has no page at <code>{hash}</code>. <a href={href.overview()}>Go to the overview</a>.
      </p>
    </>
  );
}
