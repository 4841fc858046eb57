/** The part of mailparser the tests use (the package ships no types). */
declare module 'mailparser' {
  export interface ParsedMail {
    subject?: string;
    text?: string;
    html: string | false;
  }
  export function simpleParser(source: Buffer | string): Promise<ParsedMail>;
}
