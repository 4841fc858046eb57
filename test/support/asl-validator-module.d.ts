// asl-validator ships no types; this declares the part of its API the infra tests use.
declare module 'asl-validator' {
  interface ValidationError {
    readonly message?: string;
    readonly 'Error code'?: string;
  }
  interface ValidationResult {
    readonly isValid: boolean;
    readonly errors: readonly ValidationError[];
    errorsText(separator?: string): string;
  }
  /** Validates an Amazon States Language definition (it sets QueryLanguage on every state: pass a copy). */
  export default function aslValidator(definition: unknown, options?: { checkPaths?: boolean; checkArn?: boolean }): ValidationResult;
}
