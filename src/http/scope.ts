/** The tenant a request acts for: one merchant, one environment. Every merchant query filters by both. */
export interface Scope {
  userId: string;
  livemode: boolean;
}

/** Escapes LIKE wildcards in user search text. */
export const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
