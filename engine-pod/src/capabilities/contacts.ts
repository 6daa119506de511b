import type { Contact, Label, LabelledChat, LabelSpec } from '@switchboard/protocol';

/** The people the account knows (issue 16, Contacts). Optional, like every capability. */
export interface ContactsCapability {
  /** Every contact the engine knows; the dispatcher sorts and pages them. */
  contacts?(): Promise<Contact[]>;
  /** One contact (`<number>@c.us` or `<id>@lid`); NOT_FOUND when the messaging service has no such account. */
  contact?(id: string): Promise<Contact>;
  /** The About text, or null when hidden or not set. */
  contactAbout?(id: string): Promise<string | null>;
  /** Where the profile picture can be downloaded, or null when hidden or not set (asked of the service each time). */
  contactPicture?(id: string): Promise<string | null>;
  setBlocked?(change: { readonly id: string; readonly blocked: boolean }): Promise<void>;
  /** The name the account keeps for the contact in its address book. */
  updateContact?(change: { readonly id: string; readonly firstName: string; readonly lastName: string }): Promise<void>;
}

/**
 * Chat labels (issue 16, Labels): each change emits its `label.*` event, as a change made on the
 * phone does. Optional, like every capability.
 */
export interface LabelsCapability {
  labels?(): Promise<Label[]>;
  createLabel?(label: LabelSpec): Promise<Label>;
  /** NOT_FOUND when there is no such label. */
  updateLabel?(change: LabelSpec & { readonly id: string }): Promise<Label>;
  deleteLabel?(id: string): Promise<void>;
  chatLabels?(chatId: string): Promise<Label[]>;
  /** The chat's labels from now on: each one added or taken off emits its event. NOT_FOUND names a label that does not exist. */
  setChatLabels?(change: { readonly chatId: string; readonly labelIds: readonly string[] }): Promise<void>;
  labelChats?(id: string): Promise<LabelledChat[]>;
}
