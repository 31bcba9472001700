export * from "./credential.ts";
export * from "./merge.ts";
