/**
 * Folders and labels, as the original platform has them (its MCP server's create_folder and
 * create_label: `name` at most 255 characters and unique per account, `color` one of ten).
 */
export const BADGE_COLORS = ['gray', 'slate', 'red', 'orange', 'amber', 'green', 'teal', 'blue', 'purple', 'pink'] as const;
export type BadgeColor = (typeof BADGE_COLORS)[number];
export const MAX_BADGE_NAME = 255;
