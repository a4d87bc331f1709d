/** `Content-Range` of list replies (docs/aps/rest-api.md, "Lists and Content-Range"), read as the controller writes it (runtime/common/content-range.ts). */
export { parseContentRange, type ContentRange } from "../common/content-range.ts";
