/** What `POST /aps/2/customers/{id}/suspend` (or `/resume`) answers: each Suspendable resource of the customer changed, left as it was, or failed. */
export interface SuspensionReport {
  readonly changed: readonly string[];
  readonly unchanged: number;
  readonly failed: readonly { readonly id: string; readonly error: string }[];
}
