/**
 * Type declarations as the forms need them: a type's document from `GET /aps/2/types/<id>` merged
 * with its ancestors' (declaration.ts). Documents are kept for the session of the page (types
 * change only when a package is imported, and the page is then loaded again).
 */
import type { TypeInfo } from "../../../runtime/common/type-info.ts";
import { ApsError, getJson, segment } from "../api.ts";
import { loadDocuments, resolveDeclaration, type ResolvedDecl } from "./declaration.ts";

const documents = new Map<string, Promise<TypeInfo | undefined>>();

/** A type's document; undefined for a type this controller does not know (404). */
function typeDocument(id: string): Promise<TypeInfo | undefined> {
  let doc = documents.get(id);
  if (!doc) {
    doc = getJson<TypeInfo>(`/aps/2/types/${segment(id)}`).catch((error: unknown) => {
      documents.delete(id);
      if (error instanceof ApsError && error.status === 404) return undefined;
      throw error;
    });
    documents.set(id, doc);
  }
  return doc;
}

/** The type with every member it has, inherited ones marked with the type they come from. */
export async function loadType(id: string): Promise<ResolvedDecl> {
  const own = await typeDocument(id);
  if (!own) throw new ApsError(404, "NotFound", `Type ${id} is not known to this controller.`);
  return resolveDeclaration(id, await loadDocuments(id, typeDocument));
}

/** Forgets the documents read so far (after a package import, say). */
export function forgetTypes(): void {
  documents.clear();
}
