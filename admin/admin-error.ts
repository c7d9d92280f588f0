/** Bad input to an admin command: printed as `{"error": ...}` on stderr with exit code 2. */
export class AdminInputError extends Error {}
