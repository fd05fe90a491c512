// What every template renders: the subject and the two bodies of one message.
export interface Rendered {
  subject: string;
  text: string;
  html: string;
}
