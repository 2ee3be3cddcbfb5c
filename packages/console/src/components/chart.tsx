// Scans per day by outcome, drawn by uPlot on a canvas. The canvas is a picture to a screen reader,
// so it carries a label and the same numbers are in the table next to it.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  color: string;
  values: number[];
}

export function DailyChart(props: { days: string[]; series: Series[]; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const x = props.days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
    const width = () => Math.max(280, element.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: 240,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        axes: [{}, { size: 48 }],
        series: [{ label: 'Day' }, ...props.series.map((s) => ({ label: s.label, stroke: s.color, width: 2, points: { show: true } }))],
      },
      [x, ...props.series.map((s) => s.values)],
      element,
    );
    const resize = () => plot.setSize({ width: width(), height: 240 });
    addEventListener('resize', resize);
    return () => {
      removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [props.days, props.series]);
  return <div class="chart" ref={box} role="img" aria-label={props.label} />;
}
