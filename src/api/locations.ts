/**
 * Where each resource is read: the `Location` of every 201 (what was created) and 202 (the job
 * doing the work). One owner of these paths, so that an answer never points at a path the
 * routes do not serve. Ids are encoded: they come from the service, but a path is a path.
 */
const at = (collection: string, id: string) => `/${collection}/${encodeURIComponent(id)}`;

export const locationOf = {
  dataset: (id: string) => at("datasets", id),
  model: (id: string) => at("models", id),
  job: (id: string) => at("jobs", id),
  /** The key's own path: the one that revokes it (keys are listed, never read one by one). */
  apiKey: (id: string) => at("api-keys", id),
};
