/** What a platform id may look like where the bot accepts one (commands, forms, button values). */

const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Whether `s` has the shape of a platform id (profile or livestream): what commands and forms accept. */
export function isPlatformId(s: string): boolean {
  return ID.test(s);
}
