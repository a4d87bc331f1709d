import postgres from "postgres";

/** A database of its own on the PostgreSQL server of `DATABASE_URL`, for one suite. */
export interface ScratchDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/** Creates `<prefix>_<pid>_<random>` on the server of `DATABASE_URL`. */
export async function scratchDatabase(prefix: string): Promise<ScratchDatabase> {
  const server = process.env.DATABASE_URL;
  if (!server) throw new Error("DATABASE_URL is not set: no PostgreSQL server to make a database on.");
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 7)}`;
  const admin = postgres(server, { onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: Object.assign(new URL(server), { pathname: `/${name}` }).toString(),
    drop: async () => {
      const a = postgres(server, { onnotice: () => {} });
      try {
        await a.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await a.end();
      }
    },
  };
}
