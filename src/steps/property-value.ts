/** A property as the workbench types it, `{type: 'ColorProperty', value: [...]}`, reads as its value. */
export function propertyValue(value: unknown): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && 'value' in value
    ? (value as { value: unknown }).value
    : value;
}
