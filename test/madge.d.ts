// The part of madge's API the architecture test uses (the package ships no types).
declare module 'madge' {
  interface MadgeResult {
    obj(): Record<string, string[]>;
    circular(): string[][];
  }
  interface MadgeOptions {
    fileExtensions?: string[];
    tsConfig?: string;
    detectiveOptions?: Record<string, Record<string, unknown>>;
  }
  export default function madge(path: string, options?: MadgeOptions): Promise<MadgeResult>;
}
