/** Whether `text` is a UUID; ids that are not never reach a uuid column (PostgreSQL would reject the query). */
export function isUuid(text: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text);
}
