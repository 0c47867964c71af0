/** A CLI command was given arguments it cannot use; the message is shown with the usage text. */
export class CliUsageError extends Error {}
