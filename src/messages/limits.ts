/**
 * Block Kit limits (from the doc comments of `@slack/types` 3.x and Slack's Block Kit reference):
 * the renderers keep texts within them (escape.ts). The checker the tests run on every rendered
 * message, `assertWithinLimits`, is test code: test/messages/limits.ts.
 *
 * Lengths are counted in UTF-16 code units (`string.length`), which is never less than what Slack
 * counts, so a message that passes here is not refused for length there.
 */
export const LIMITS = {
  /** Section `text`, and every text object without a smaller limit (minimum 1). */
  sectionText: 3000,
  /** Header block text, plain_text only. */
  headerText: 150,
  /** Section `fields`: at most 10 items of at most 2000 characters each. */
  sectionFields: 10,
  sectionFieldText: 2000,
  /** Context block: at most 10 elements. */
  contextElements: 10,
  /** Actions block: at most 25 elements. */
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  buttonUrl: 3000,
  accessibilityLabel: 75,
  actionId: 255,
  blockId: 255,
  imageAltText: 2000,
  imageUrl: 3000,
  /** Confirmation dialog object. */
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
  /** Static select menu: at most 100 options; option text 75, value 150; placeholder 150. */
  selectOptions: 100,
  optionText: 75,
  optionValue: 150,
  placeholder: 150,
  /** Blocks in one message. */
  blocksPerMessage: 50,
  /** Top-level `text` of chat.postMessage (longer is truncated by Slack). */
  messageText: 40000,
} as const;
