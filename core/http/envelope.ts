/** The success envelope of the spec: `{code:"OK", message:"success", data}`. */
export interface Envelope<T> {
  code: 'OK';
  message: 'success';
  data: T;
}

export function ok<T>(data: T): Envelope<T> {
  return { code: 'OK', message: 'success', data };
}
