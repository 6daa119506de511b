import { ProfileNameRequest, ProfilePictureRequest, ProfileStatusRequest } from '../profile.js';
import { command } from './command.js';

/** Engine commands of spec 4.4 (the account's own profile). */
export const profileCommands = [
  command('profile.get'),
  command('profile.setName', ProfileNameRequest),
  command('profile.setStatus', ProfileStatusRequest),
  command('profile.setPicture', ProfilePictureRequest),
  command('profile.deletePicture'),
] as const;
