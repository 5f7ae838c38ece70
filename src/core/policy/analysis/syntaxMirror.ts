// The syntax tree as plain JavaScript objects. Every property of a web-tree-sitter node (its type,
// its offsets, its children) is a call into WebAssembly that copies the node in and out of a transfer
// buffer, and the analysis reads the tree three times (the shape check, the segment walk, the
// variable-change walk): that was most of a fresh decision's analysis time. One cursor walk copies
// the visible nodes once, with the field name each has in its parent, and the three walks read
// the copy. The copy offers the part of the node interface the walks use, with the same meaning
// (`childForFieldName` is the first child with that field, as tree-sitter's cursor names fields).
import type TreeSitter = require('web-tree-sitter');
import { cpuNow } from '../../util/cpuClock';

/** A node of the copied tree. */
export class SyntaxNode {
  readonly children: SyntaxNode[] = [];
  readonly namedChildren: SyntaxNode[] = [];
  /** The field name of each child (same index as `children`), null for none. */
  private readonly fields: Array<string | null> = [];

  constructor(
    readonly type: string,
    readonly isNamed: boolean,
    readonly startIndex: number,
    readonly endIndex: number,
    readonly parent: SyntaxNode | null,
    private readonly src: string,
  ) {}

  get text(): string {
    return this.src.slice(this.startIndex, this.endIndex);
  }

  get childCount(): number {
    return this.children.length;
  }

  get namedChildCount(): number {
    return this.namedChildren.length;
  }

  child(index: number): SyntaxNode | null {
    return this.children[index] ?? null;
  }

  namedChild(index: number): SyntaxNode | null {
    return this.namedChildren[index] ?? null;
  }

  fieldNameForChild(index: number): string | null {
    return this.fields[index] ?? null;
  }

  childForFieldName(name: string): SyntaxNode | null {
    const k = this.fields.indexOf(name);
    return k < 0 ? null : this.children[k];
  }

  childrenForFieldName(name: string): SyntaxNode[] {
    const out: SyntaxNode[] = [];
    for (let k = 0; k < this.fields.length; k++) if (this.fields[k] === name) out.push(this.children[k]);
    return out;
  }

  /** @internal the copy's construction */
  adopt(child: SyntaxNode, field: string | null): void {
    this.children.push(child);
    this.fields.push(field);
    if (child.isNamed) this.namedChildren.push(child);
  }
}

export type MirrorResult = { root: SyntaxNode; tooDeep?: undefined; tooSlow?: undefined } | { root?: undefined; tooDeep: true; tooSlow?: undefined } | { root?: undefined; tooDeep?: undefined; tooSlow: true };

/** Nodes copied between two looks at the clock. */
const NODES_PER_CLOCK_CHECK = 256;

/**
 * Copies the tree under `root`, depth first in source order, iteratively. Stops with `tooDeep` when
 * a node lies deeper than `maxDepth` below the root, with `tooSlow` past the deadline (cpuNow()).
 */
export function mirrorTree(root: TreeSitter.Node, src: string, maxDepth: number, deadline = Infinity): MirrorResult {
  const cursor = root.walk();
  try {
    const top = new SyntaxNode(cursor.nodeType, cursor.nodeIsNamed, cursor.startIndex, cursor.endIndex, null, src);
    let parent: SyntaxNode = top;
    let current: SyntaxNode = top;
    let depth = 0;
    let nodes = 1;
    for (;;) {
      if (cursor.gotoFirstChild()) {
        if (++depth > maxDepth) return { tooDeep: true };
        parent = current;
      } else {
        for (;;) {
          if (cursor.gotoNextSibling()) break;
          if (!cursor.gotoParent()) return { root: top };
          depth--;
          current = parent;
          parent = parent.parent ?? top;
        }
      }
      if (++nodes % NODES_PER_CLOCK_CHECK === 0 && cpuNow() > deadline) return { tooSlow: true };
      current = new SyntaxNode(cursor.nodeType, cursor.nodeIsNamed, cursor.startIndex, cursor.endIndex, parent, src);
      parent.adopt(current, cursor.currentFieldName);
    }
  } finally {
    cursor.delete();
  }
}
