/**
 * Bad input to the engine (empty data, unusable label, no usable features, ...). The message is
 * written for the end user: the service copies it into a failed job's `error_message`.
 */
export class MlInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MlInputError";
  }
}
