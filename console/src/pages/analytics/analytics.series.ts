/**
 * A line of a chart and how it reads without colour: its dash and its marker (filled or
 * hollow), which the legend repeats beside its name.
 */
export interface ChartSeries {
  label: string;
  values: (number | null)[];
  color: string;
  /** uPlot's dash: [] solid, [8, 4] dashed, [2, 4] dotted. */
  dash: number[];
  marker: 'filled' | 'hollow';
  axis?: 'left' | 'right';
  /** The axis's labels. */
  tick: (value: number) => string;
  /** The axis's fixed top (1 for rates); else the data's. */
  max?: number;
}

export const SOLID: number[] = [];
export const DASHED = [8, 4];
export const DOTTED = [2, 4];
