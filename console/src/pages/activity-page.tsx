/**
 * Activity (`#/activity`, provider administrators): asynchronous tasks with Retry for failed ones
 * (`/aps/2/tasks`), every event subscription (`/aps/2/events/subscriptions`), the notification
 * outbox and its dead letters with Replay (`/aps/2/events`, docs/aps/events.md), and a live log of
 * the calls the controller makes to application endpoints (`/aps/2/console/calls`, server-sent
 * events read with fetch so that the token goes as a header, never in the URL).
 */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { OutboxNotification } from "../../../runtime/common/outbox-notification.ts";
import type { SubscriptionEntry } from "../../../runtime/common/subscription.ts";
import type { TaskInfo } from "../../../runtime/common/task-info.ts";
import { callJson, getJson, getPage, segment, streamEvents } from "../api.ts";
import { href } from "../routes.ts";
import { addCall, isCallEntry, type EndpointCallEntry } from "./call-log.ts";
import { ColumnHeads, ErrorMessage, useLoad, valueText, WhenLoaded } from "../ui.tsx";

export default function ActivityPage() {
  return (
    <>
      <h1>Activity</h1>
      <Tasks />
      <Subscriptions />
      <Outbox />
      <DeadLetters />
      <LiveCalls />
    </>
  );
}

/** A section with a heading and a Refresh button. */
function Section({
  id,
  title,
  refresh,
  children,
}: {
  id: string;
  title: string;
  refresh?: () => void;
  children: ComponentChildren;
}) {
  return (
    <section aria-labelledby={`${id}-heading`}>
      <div class="section-head">
        <h2 id={`${id}-heading`}>{title}</h2>
        {refresh && (
          <button type="button" class="secondary small" aria-label={`Refresh ${title.toLowerCase()}`} onClick={refresh}>
            Refresh
          </button>
        )}
      </div>
      {children}
    </section>
  );
}

/** The outcome of a row action (Retry, Replay), shown once above the table. */
function useActionNotice(): [{ ok: boolean; text: string } | undefined, (ok: boolean, text: string) => void] {
  const [notice, setNotice] = useState<{ ok: boolean; text: string }>();
  return [notice, (ok, text) => setNotice({ ok, text })];
}

function Notice({ notice }: { notice: { ok: boolean; text: string } | undefined }) {
  if (!notice) return null;
  return (
    <p class={notice.ok ? "notice" : "error"} role={notice.ok ? "status" : "alert"}>
      {notice.text}
    </p>
  );
}

function Tasks() {
  const tasks = useLoad(() => getJson<TaskInfo[]>("/aps/2/tasks"), []);
  const [notice, say] = useActionNotice();
  const retry = async (t: TaskInfo) => {
    try {
      await callJson({ method: "POST", path: `/aps/2/tasks/${segment(t.id)}/retry` });
      say(true, `Task ${t.id} (${t.operation}) is pending again.`);
    } catch (error) {
      say(false, `Task ${t.id}: ${(error as Error).message}`);
    }
    tasks.reload();
  };
  return (
    <Section id="tasks" title="Tasks" refresh={tasks.reload}>
      <Notice notice={notice} />
      <WhenLoaded loaded={tasks}>
        {(list) =>
          list.length === 0 ? (
            <p class="muted">No tasks.</p>
          ) : (
            <table class="tasks">
              <ColumnHeads
                names={["Task", "Resource", "Operation", "State", "Attempts", "Next attempt", "Last error", "Action"]}
              />
              <tbody>
                {list.map((t) => (
                  <tr key={t.id} class={`state-${t.state}`}>
                    <td class="mono">{t.id}</td>
                    <td class="mono">
                      <a href={href.resource(t.resource)}>{t.resource}</a>
                    </td>
                    <td>{t.operation}</td>
                    <td>{t.state}</td>
                    <td>{t.attempts}</td>
                    <td>{t.state === "pending" ? t.retryAt : ""}</td>
                    <td class="value">{t.lastError ?? ""}</td>
                    <td>
                      {t.state === "failed" && (
                        <button type="button" class="small" onClick={() => retry(t)}>
                          Retry
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </WhenLoaded>
    </Section>
  );
}

/** Every subscription of every subscriber (`/aps/2/events/subscriptions`), oldest first. */
function Subscriptions() {
  const subs = useLoad(() => getPage<SubscriptionEntry>("/aps/2/events/subscriptions"), []);
  return (
    <Section id="subscriptions" title="Subscriptions" refresh={subs.reload}>
      <WhenLoaded loaded={subs}>
        {({ items: list, range }) =>
          list.length === 0 ? (
            <p class="muted">No subscriptions: no application has subscribed to events.</p>
          ) : (
            <>
              <Shown count={list.length} total={range.total} what="subscriptions" />
              <table class="subscriptions">
                <ColumnHeads names={["Subscriber", "Event", "Source", "Relation", "Handler", "Created"]} />
                <tbody>
                  {list.map((s) => (
                    <tr key={s.id}>
                      <td class="mono">
                        <a href={href.resource(s.subscriber)}>{s.subscriber}</a>
                      </td>
                      <td class="mono">{s.event}</td>
                      <td class="mono">
                        {"id" in s.source ? <a href={href.resource(s.source.id)}>{s.source.id}</a> : s.source.type}
                      </td>
                      <td class="mono">{s.relation ?? ""}</td>
                      <td class="mono">{s.handler}</td>
                      <td>{s.created}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )
        }
      </WhenLoaded>
    </Section>
  );
}

/** "The oldest 1000 of 1234 …" when a list holds fewer entries than there are. */
function Shown({ count, total, what }: { count: number; total: number; what: string }) {
  if (total <= count) return null;
  return (
    <p class="muted">
      The oldest {count} of {total} {what}.
    </p>
  );
}

function NotificationTable({
  list,
  action,
}: {
  list: readonly OutboxNotification[];
  action?: (n: OutboxNotification) => ComponentChildren;
}) {
  return (
    <table class="notifications">
      <ColumnHeads
        names={["Id", "Event", "Source", "Subscriber", "Time", "Attempts", "Last error", ...(action ? ["Action"] : [])]}
      />
      <tbody>
        {list.map((n) => (
          <tr key={n.id}>
            <td class="mono">{n.id}</td>
            <td class="mono">{n.event}</td>
            <td class="mono">
              <a href={href.resource(n.source.id)}>{n.source.id}</a>
            </td>
            <td class="mono">
              <a href={href.resource(n.subscriber)}>{n.subscriber}</a>
            </td>
            <td>{n.time}</td>
            <td>{n.attempts}</td>
            <td class="value">{n.lastError ?? ""}</td>
            {action && <td>{action(n)}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Outbox() {
  const pending = useLoad(() => getPage<OutboxNotification>("/aps/2/events/pending"), []);
  return (
    <Section id="outbox" title="Outbox" refresh={pending.reload}>
      <WhenLoaded loaded={pending}>
        {({ items: list, range }) =>
          list.length === 0 ? (
            <p class="muted">Nothing waiting to be delivered.</p>
          ) : (
            <>
              <Shown count={list.length} total={range.total} what="notifications waiting" />
              <NotificationTable list={list} />
            </>
          )
        }
      </WhenLoaded>
    </Section>
  );
}

function DeadLetters() {
  const dead = useLoad(() => getPage<OutboxNotification>("/aps/2/events/dead"), []);
  const [notice, say] = useActionNotice();
  const replay = async (n: OutboxNotification) => {
    try {
      await callJson({ method: "POST", path: `/aps/2/events/dead/${n.id}/replay` });
      say(true, `Notification ${n.id} (${n.event}) is queued again.`);
    } catch (error) {
      say(false, `Notification ${n.id}: ${(error as Error).message}`);
    }
    dead.reload();
  };
  return (
    <Section id="dead-letters" title="Dead letters" refresh={dead.reload}>
      <Notice notice={notice} />
      <WhenLoaded loaded={dead}>
        {({ items: list, range }) =>
          list.length === 0 ? (
            <p class="muted">No dead letters.</p>
          ) : (
            <>
              <Shown count={list.length} total={range.total} what="dead letters" />
              <NotificationTable
                list={list}
                action={(n) => (
                  <button type="button" class="small" onClick={() => replay(n)}>
                    Replay
                  </button>
                )}
              />
            </>
          )
        }
      </WhenLoaded>
    </Section>
  );
}

function LiveCalls() {
  const [calls, setCalls] = useState<readonly EndpointCallEntry[]>([]);
  const [error, setError] = useState<Error>();
  const [round, setRound] = useState(0);
  const [connected, setConnected] = useState(false);
  useEffect(() => {
    const stop = new AbortController();
    setError(undefined);
    setConnected(true);
    streamEvents(
      "/aps/2/console/calls",
      (data) => {
        if (isCallEntry(data)) setCalls((list) => addCall(list, data));
      },
      stop.signal,
    ).then(
      () => !stop.signal.aborted && setConnected(false),
      (e: Error) => {
        if (stop.signal.aborted) return;
        setError(e);
        setConnected(false);
      },
    );
    return () => stop.abort();
  }, [round]);
  return (
    <Section id="live-calls" title="Live calls">
      <p class="muted" role="status">
        {connected ? "Listening for calls to application endpoints." : "Not listening."}{" "}
        {!connected && (
          <button type="button" class="secondary small" onClick={() => setRound((r) => r + 1)}>
            Reconnect
          </button>
        )}
      </p>
      {error && <ErrorMessage error={error} />}
      <div role="log" aria-label="Live calls" aria-live="polite" class="call-log">
        {calls.length === 0 ? (
          <p class="muted">No calls yet.</p>
        ) : (
          <table class="calls">
            <ColumnHeads names={["Time", "Method", "Path", "Status", "Duration", "Body"]} />
            <tbody>
              {calls.map((c) => (
                <CallRow key={c.id} call={c} />
              ))}
            </tbody>
          </table>
        )}
      </div>
    </Section>
  );
}

function CallRow({ call }: { call: EndpointCallEntry }) {
  const [open, setOpen] = useState(false);
  const detailsId = `call-${String(call.id).replace(/[^A-Za-z0-9_-]/g, "_")}`;
  return (
    <>
      <tr class={call.status !== undefined && call.status >= 400 ? "failed" : ""}>
        <td>{call.at}</td>
        <td class="mono">{call.method}</td>
        <td class="mono value">{call.path}</td>
        <td>{call.status ?? call.outcome ?? ""}</td>
        <td>{`${call.ms} ms`}</td>
        <td>
          <button
            type="button"
            class="secondary small"
            aria-expanded={open}
            aria-controls={detailsId}
            onClick={() => setOpen(!open)}
          >
            {open ? "Hide body" : "Show body"}
          </button>
        </td>
      </tr>
      {open && (
        <tr id={detailsId} class="call-details">
          <td colSpan={6}>
            <h3>Request headers</h3>
            <pre>
              {Object.entries(call.requestHeaders ?? {})
                .map(([k, v]) => `${k}: ${v}`)
                .join("\n") || "(none)"}
            </pre>
            <h3>Request body</h3>
            <pre>{bodyText(call.requestBody)}</pre>
            <h3>Response body</h3>
            <pre>{bodyText(call.responseBody)}</pre>
            {call.error && <p class="error">{call.error}</p>}
            <p class="muted">
              {`Instance ${call.instance}, outcome ${call.outcome}`}
              {call.worker !== undefined && `, made by worker ${call.worker}`}
            </p>
          </td>
        </tr>
      )}
    </>
  );
}

/** A body as text, JSON pretty-printed when it is JSON. */
function bodyText(body: unknown): string {
  if (body === undefined || body === null || body === "") return "(none)";
  if (typeof body !== "string") return valueText(body);
  // Pretty-printing goes through doubles: a body with long integers is shown exactly as sent.
  if (/\d{16}/.test(body)) return body;
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
