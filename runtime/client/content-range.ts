/** `Content-Range` of list replies (SPEC 4.6), read as the controller writes it (runtime/common/content-range.ts). */
export { parseContentRange, type ContentRange } from "../common/content-range.ts";
