/**
 * The Prettier settings generated files are already formatted for: the emitters write exactly
 * what `prettier.format(text, { ...PRETTIER_OPTIONS, filepath })` prints, so a project that runs
 * Prettier over `generated/` sees no change, and no build pays for running it (a 1000-type
 * package is ~35 MB of code). test/emit/prettier-format.test.ts proves it on every example.
 *
 * Everything but the width is Prettier's default (two-space indent, double quotes, semicolons,
 * trailing commas everywhere). 120 rather than the default 80: generated signatures and imports
 * carry long type names, and at 80 most of them would wrap onto several lines, which costs bytes
 * and reading time.
 */
export const PRETTIER_OPTIONS = { printWidth: 120 } as const;

/** The width no generated line exceeds unless it holds nothing Prettier could break. */
export const PRINT_WIDTH: number = PRETTIER_OPTIONS.printWidth;
