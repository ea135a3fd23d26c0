export const GOFAKES3_MODULE: string;
export const GOFAKES3_VERSION: string;
export const s3ServerPath: string;
export const redisServerPath: string;
export function s3ServerIsPinned(): boolean;
export function ensureS3Server(): void;
export function ensureRedis(): void;
export function ensureFleetServices(): void;
