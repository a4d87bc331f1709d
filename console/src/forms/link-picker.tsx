/**
 * The input of a link field (compiled-form.tsx): a text box for the resource id with a native
 * `<datalist>` of candidates (link-candidates.ts), so it stays a plain, keyboard-usable combobox.
 * From the first focus on, the candidates matching what is typed are asked for, once typing has
 * paused; a reply that comes after newer text was typed is dropped. A list that fails leaves the
 * box as it is: an id can always be typed. Labels are text nodes, never markup.
 */
import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { ApsResource } from "../../../runtime/common/types.ts";
import { getPage } from "../api.ts";
import { candidateQuery, candidatesOf, type Candidate } from "./link-candidates.ts";

/** Pause in typing before the candidates are asked for, so that a word typed is one request. */
const DEBOUNCE_MS = 200;

type LinkInputProps = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, "list" | "value" | "onFocus"> & {
  readonly id: string;
  readonly value: string;
  /** The type whose resources are offered. */
  readonly typeId: string;
};

export function LinkInput({ typeId, value, ...input }: LinkInputProps) {
  // Nothing is asked for until the field is used: a form with many links costs no requests on opening.
  const [used, setUsed] = useState(false);
  const candidates = useCandidates(typeId, value, used);
  const listId = `${input.id}-candidates`;
  return (
    <>
      <input {...input} value={value} list={listId} onFocus={() => setUsed(true)} />
      <datalist id={listId}>
        {candidates.map((c) => (
          <option key={c.id} value={c.id}>
            {c.label}
          </option>
        ))}
      </datalist>
    </>
  );
}

/** The candidates for `text`, asked for `DEBOUNCE_MS` after it last changed while `active`. */
function useCandidates(typeId: string, text: string, active: boolean): readonly Candidate[] {
  const [candidates, setCandidates] = useState<readonly Candidate[]>([]);
  useEffect(() => {
    if (!active) return;
    // Set when newer text (or unmounting) replaces this request: its reply is then stale.
    let stale = false;
    const timer = setTimeout(() => {
      getPage<ApsResource>("/aps/2/resources", candidateQuery(typeId, text)).then(
        (page) => {
          if (!stale) setCandidates(candidatesOf(page.items));
        },
        () => {
          // Offering nothing is better than offering what no longer matches; typing still works.
          if (!stale) setCandidates([]);
        },
      );
    }, DEBOUNCE_MS);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [typeId, text, active]);
  return candidates;
}
