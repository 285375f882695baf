import { rowView } from '../../platform/row-view.js';
import type * as versions from './template-versions.repository.js';
import type * as repo from './templates.repository.js';
import type { TemplateView } from './templates.schemas.js';

// What the templates service answers for its rows: the resource (API, CLI), the working template
// and its versions (the dashboard).

export function templateView(row: repo.TemplateRow): TemplateView {
  return rowView(row, ['id', 'name', 'description', 'fields', 'created_at', 'updated_at']);
}

// A template as the people who design it see it: its state and versions besides the resource.
export interface WorkingTemplate extends TemplateView {
  status: repo.TemplateRow['status'];
  // The version issuing renders (for a draft: the newest), and the newest saved one.
  version: number;
  latestVersion: number;
}

export function workingView(row: repo.TemplateRow): WorkingTemplate {
  return { ...templateView(row), ...rowView(row, ['status', 'version', 'latest_version']) };
}

export interface TemplateVersion {
  version: number;
  name: string;
  note: string;
  elements: number;
  createdAt: string;
}

export function versionView(row: versions.VersionRow): TemplateVersion {
  return rowView(row, ['version', 'name', 'note', 'elements', 'created_at']);
}
