/** The part of mailparser the tests use (the package ships no types). */
declare module 'mailparser' {
  export interface AddressObject {
    text: string;
    value: { address?: string; name: string }[];
  }
  export interface ParsedMail {
    subject?: string;
    date?: Date;
    text?: string;
    html: string | false;
    from?: AddressObject;
    to?: AddressObject | AddressObject[];
  }
  export function simpleParser(source: Buffer | string): Promise<ParsedMail>;
}
