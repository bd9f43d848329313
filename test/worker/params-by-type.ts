/** Each model type's params schema, by type (from the registry), for tests that generate params. */
import { modelTypes } from "../../src/model-types/registry";

export const PARAMS_BY_TYPE = Object.fromEntries(modelTypes.modules.map((m) => [m.name, m.params.schema]));
