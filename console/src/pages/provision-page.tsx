/**
 * Provisioning a resource of a type (`#/provision/<type id>`) through a form compiled from its
 * declaration, inherited properties included (docs/aps/lifecycle.md, "Base operations"): checked
 * in the browser first, then `POST /aps/2/resources` with `aps.type`; the controller's errors
 * land on the fields they name. On success the new resource's page opens.
 */
import type { ApsResource } from "../../../runtime/common/types.ts";
import { callJson } from "../api.ts";
import { CompiledForm } from "../forms/compiled-form.tsx";
import { provisionForm } from "../forms/form-model.ts";
import { formValues, initialState } from "../forms/form-state.ts";
import { loadType } from "../forms/type-loader.ts";
import { href } from "../routes.ts";
import { useLoad, WhenLoaded } from "../ui.tsx";

export default function ProvisionPage({ typeId }: { typeId: string }) {
  const type = useLoad(() => loadType(typeId), [typeId]);
  return (
    <WhenLoaded loaded={type}>
      {(t) => {
        const model = provisionForm(t);
        return (
          <>
            <h1>{`Provision ${t.name}`}</h1>
            <p class="muted mono">{t.id}</p>
            <CompiledForm
              id="provision"
              model={model}
              initial={initialState(model)}
              submitLabel="Provision"
              send={async (state) => {
                const created = await callJson<ApsResource>({
                  method: "POST",
                  path: "/aps/2/resources",
                  json: { aps: { type: t.id }, ...formValues(model, state) },
                });
                location.hash = href.resource(created.aps.id);
              }}
              extra={
                <a class="button secondary" href={href.resources(t.id)}>
                  Cancel
                </a>
              }
            />
          </>
        );
      }}
    </WhenLoaded>
  );
}
