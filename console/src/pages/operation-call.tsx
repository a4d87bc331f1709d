/** A custom operation's form (compiled from its parameters) and the answer it got, shown as text. */
import { useState } from "preact/hooks";
import { callRaw } from "../api.ts";
import { CompiledForm } from "../forms/compiled-form.tsx";
import type { ResolvedDecl } from "../forms/declaration.ts";
import { operationForm } from "../forms/form-model.ts";
import { formValues, initialState, type FormState } from "../forms/form-state.ts";
import { operationRequest, type OperationValues } from "../forms/operation-request.ts";

export function OperationCall({ type, name, base }: { type: ResolvedDecl; name: string; base: string }) {
  const model = operationForm(type, name);
  const op = type.operations.get(name)!.decl;
  const [answer, setAnswer] = useState<{ status: number; text: string }>();
  const send = async (state: FormState) => {
    setAnswer(undefined);
    const reply = await callRaw(operationRequest(op, formValues(model, state) as OperationValues, base));
    setAnswer({ status: reply.status, text: await reply.text() });
  };
  const headingId = `operation-${name}-heading`;
  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId}>
        {name} <span class="muted mono">{`${op.verb} ${op.path}`}</span>
      </h2>
      {op.description && <p>{op.description}</p>}
      <CompiledForm id={`op-${name}`} model={model} initial={initialState(model)} submitLabel="Call" send={send} />
      {answer && (
        <div role="status">
          <h3>{`Answer: ${answer.status}`}</h3>
          <pre class="answer">{answer.text || "(no body)"}</pre>
        </div>
      )}
    </section>
  );
}
