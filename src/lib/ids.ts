import { ObjectId } from 'bson';

/** 24-hex ObjectId strings: the contract's id format for every resource. */
export function newId(): string {
  return new ObjectId().toHexString();
}

export const OBJECT_ID_PATTERN = '^[0-9a-fA-F]{24}$';
export function isObjectId(value: string): boolean {
  return /^[0-9a-fA-F]{24}$/.test(value);
}
