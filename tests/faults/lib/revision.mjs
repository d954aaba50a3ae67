// How the campaign's providers write a revision into each item's description, and read it back.

/** The description of provider `provider`'s route `route` at `revision`. */
export const describe = (provider, route, revision) => `Route ${route} of provider ${provider}, revision ${revision}.`;

/** The revision a description names (NaN for one the campaign did not write). */
export const revisionOf = (description) => Number(/revision (\d+)\./.exec(description)?.[1] ?? NaN);
