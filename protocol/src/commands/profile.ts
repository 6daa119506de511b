import { z } from 'zod';
import { ProfileNameRequest, ProfilePictureRequest, ProfileStatusRequest } from '../profile.js';

/** Engine commands of spec 4.4 (the account's own profile). */
export const profileCommands = [
  z.object({ op: z.literal('profile.get') }),
  z.object({ op: z.literal('profile.setName'), args: ProfileNameRequest }),
  z.object({ op: z.literal('profile.setStatus'), args: ProfileStatusRequest }),
  z.object({ op: z.literal('profile.setPicture'), args: ProfilePictureRequest }),
  z.object({ op: z.literal('profile.deletePicture') }),
] as const;
