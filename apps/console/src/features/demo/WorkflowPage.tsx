import { Alert, Typography } from 'antd';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { WORKFLOW, type WorkflowEdge, type WorkflowNode, type WorkflowNodeType } from './mock';

const STYLES: Record<WorkflowNodeType, { stroke: string; fill: string }> = {
  start: { stroke: '#52c41a', fill: '#f6ffed' },
  rect: { stroke: '#1677ff', fill: '#e6f4ff' },
  user: { stroke: '#722ed1', fill: '#f9f0ff' },
  push: { stroke: '#fa8c16', fill: '#fff7e6' },
  download: { stroke: '#13c2c2', fill: '#e6fffb' },
  end: { stroke: '#ff4d4f', fill: '#fff1f0' },
};

const RADIUS = 26;
const BOX = { width: 124, height: 48 };

const round = (type: WorkflowNodeType) => type === 'start' || type === 'end';
const halfWidth = (node: WorkflowNode) => (round(node.type) ? RADIUS : BOX.width / 2);

/** Right side of the source to left side of the target, with an elbow when they are not level. */
function edgePoints(source: WorkflowNode, target: WorkflowNode): Array<[number, number]> {
  const from: [number, number] = [source.x + halfWidth(source), source.y];
  const to: [number, number] = [target.x - halfWidth(target), target.y];
  if (source.y === target.y) return [from, to];
  const middle = (from[0] + to[0]) / 2;
  return [from, [middle, from[1]], [middle, to[1]], to];
}

/** A small glyph for the task kinds: a person, an upward or a downward arrow. */
function Glyph({ node }: { node: WorkflowNode }) {
  const x = node.x - BOX.width / 2 + 18;
  const { stroke } = STYLES[node.type];
  if (node.type === 'user')
    return (
      <g stroke={stroke} fill="none" strokeWidth={1.6}>
        <circle cx={x} cy={node.y - 5} r={4} />
        <path d={`M${x - 7},${node.y + 9} a7,7 0 0 1 14,0`} />
      </g>
    );
  if (node.type === 'push' || node.type === 'download') {
    const up = node.type === 'push';
    const tip = up ? node.y - 8 : node.y + 8;
    const tail = up ? node.y + 8 : node.y - 8;
    const wing = up ? tip + 5 : tip - 5;
    return (
      <path
        d={`M${x},${tail} L${x},${tip} M${x - 5},${wing} L${x},${tip} L${x + 5},${wing}`}
        stroke={stroke}
        fill="none"
        strokeWidth={1.6}
      />
    );
  }
  return null;
}

function Node({ node, label }: { node: WorkflowNode; label: string }) {
  const style = STYLES[node.type];
  const glyph = node.type === 'user' || node.type === 'push' || node.type === 'download';
  return (
    <g data-node={node.id}>
      {round(node.type) ? (
        <>
          <circle cx={node.x} cy={node.y} r={RADIUS} fill={style.fill} stroke={style.stroke} strokeWidth={2} />
          {node.type === 'end' && <circle cx={node.x} cy={node.y} r={RADIUS - 5} fill="none" stroke={style.stroke} strokeWidth={1.5} />}
        </>
      ) : (
        <rect
          x={node.x - BOX.width / 2}
          y={node.y - BOX.height / 2}
          width={BOX.width}
          height={BOX.height}
          rx={6}
          fill={style.fill}
          stroke={style.stroke}
          strokeWidth={2}
        />
      )}
      <Glyph node={node} />
      <text x={node.x + (glyph ? 10 : 0)} y={node.y} textAnchor="middle" dominantBaseline="central" fontSize={13} fill="#262626">
        {label}
      </text>
    </g>
  );
}

function Edge({ edge, arrow, label }: { edge: WorkflowEdge; arrow: string; label?: string }) {
  const source = WORKFLOW.nodes.find((node) => node.id === edge.sourceNodeId);
  const target = WORKFLOW.nodes.find((node) => node.id === edge.targetNodeId);
  if (!source || !target) return null;
  const points = edgePoints(source, target);
  const [labelX, labelY] = [points[1]?.[0] ?? source.x, (source.y + target.y) / 2];
  return (
    <g>
      <polyline
        points={points.map((point) => point.join(',')).join(' ')}
        fill="none"
        stroke="currentColor"
        strokeWidth={1.5}
        markerEnd={`url(#${arrow})`}
      />
      {label && (
        <text x={labelX + 6} y={labelY} dominantBaseline="central" fontSize={12} fill="currentColor">
          {label}
        </text>
      )}
    </g>
  );
}

/** Sample content (VITE_PARLEY_DEMO=1 only): the template's workflow sample, the mock graph drawn as SVG. */
export default function WorkflowPage() {
  const { t } = useTranslation();
  const arrow = `arrow-${useId().replace(/[^\w-]/g, '')}`;
  return (
    <div className="page-card" data-testid="demo-workflow">
      <Alert type="info" showIcon title={t('demo.notice')} className="demo-notice" />
      <Typography.Paragraph type="secondary">{t('demo.workflow.description')}</Typography.Paragraph>
      <div style={{ overflowX: 'auto' }}>
        <svg
          viewBox="0 0 740 360"
          role="img"
          aria-label={t('demo.workflow.description')}
          style={{ width: '100%', minWidth: 560, maxWidth: 960 }}
        >
          <defs>
            <marker id={arrow} viewBox="0 0 10 10" refX={10} refY={5} markerWidth={8} markerHeight={8} orient="auto-start-reverse">
              <path d="M0,0 L10,5 L0,10 z" fill="currentColor" />
            </marker>
          </defs>
          {WORKFLOW.edges.map((edge) => (
            <Edge
              key={`${edge.sourceNodeId}-${edge.targetNodeId}`}
              edge={edge}
              arrow={arrow}
              label={edge.text ? t(`demo.workflow.edges.${edge.text}`) : undefined}
            />
          ))}
          {WORKFLOW.nodes.map((node) => (
            <Node key={node.id} node={node} label={t(`demo.workflow.nodes.${node.text}`)} />
          ))}
        </svg>
      </div>
    </div>
  );
}
