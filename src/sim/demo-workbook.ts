import { writeFile } from 'node:fs/promises';

/** One row of the cohort index. */
export interface StudyRow {
  name: string;
  /** The study's directory, relative to the output directory ('.' for a single study). */
  path: string;
  tumour_x: number;
  tumour_y: number;
  tumour_z: number;
  tumour_radius_mm: number;
}

/** The columns of the cohort's index, in the order the CSV has them. */
export const STUDY_COLUMNS = ['name', 'path', 'tumour_x', 'tumour_y', 'tumour_z', 'tumour_radius_mm'] as const;

/** The workbook's dates: fixed, so that one seed writes one workbook whatever the day. */
const WRITTEN = new Date(Date.UTC(2024, 0, 1));

/**
 * The cohort's index as an Excel workbook, as a research group keeps it: one sheet `Studies`
 * with a bold, frozen header row and the coordinates as numbers. exceljs is loaded here only,
 * so the reference workbench, which imports the demo data, does not load it.
 *
 * The cells are the same for one seed; the bytes are not quite, since the zip archive records
 * the time each part was written.
 */
export async function writeStudiesWorkbook(path: string, studies: readonly StudyRow[]): Promise<void> {
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'wbplay demo-data';
  workbook.created = WRITTEN;
  workbook.modified = WRITTEN;
  const sheet = workbook.addWorksheet('Studies', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = STUDY_COLUMNS.map((key) => ({ header: key, key, width: Math.max(12, key.length + 2) }));
  sheet.getRow(1).font = { bold: true };
  for (const study of studies) sheet.addRow(STUDY_COLUMNS.map((c) => study[c]));
  await writeFile(path, Buffer.from(await workbook.xlsx.writeBuffer()));
}
