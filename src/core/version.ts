/** Version of the ML runtime (engine + featurizer) that jobs record as service_runtime_version. */
export const SERVICE_RUNTIME_VERSION = "0.1.0";
