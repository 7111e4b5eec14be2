// A cohort's search of an archive: which `where` conditions travel as QIDO-RS parameters (and
// in what form Orthanc can match them), how series answers are filled from their study, and the
// date ranges `where` matches locally, as every condition is checked again on what came back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { searchArchive, seriesQuery, studyQuery, type Searchable } from '../../src/dicomweb/search.js';
import type { Attributes } from '../../src/dicomweb/types.js';
import { matchesWhere } from '../../src/volume/dicom/where.js';

test('the where keywords QIDO-RS matches go to the study and series levels; the rest stays local', () => {
  const where = {
    PatientID: 'DEMO*',
    StudyDate: '20240101-20241231',
    AccessionNumber: 'ACC1',
    Modality: 'CT',
    StudyDescription: 'CT ABDOMEN',
    SeriesDescription: ['A', 'B'],
    SeriesNumber: 3,
    Manufacturer: 'ACME',
  };
  assert.deepEqual(studyQuery(where), {
    PatientID: 'DEMO*',
    StudyDate: '20240101-20241231',
    AccessionNumber: 'ACC1',
    ModalitiesInStudy: 'CT',
    // Orthanc 1.10 decodes no query value: a space becomes a wildcard, narrowed here afterwards.
    StudyDescription: 'CT*ABDOMEN',
  });
  // A list (any of) would need one search per value: it is matched here instead.
  assert.deepEqual(seriesQuery(where), { SeriesNumber: '3', Modality: 'CT' });
  assert.deepEqual(seriesQuery({ SeriesDescription: 'PORTAL (VENOUS)?' }), { SeriesDescription: 'PORTAL*VENOUS**' });
  // No wildcard is allowed on a UID or a date: a value that cannot travel as it is stays local.
  assert.deepEqual(studyQuery({ StudyDate: '2024 01 01' }), {});
});

test("a search asks for studies, then each study's series, and fills the case keywords from both", async () => {
  const asked: string[] = [];
  const archive: Searchable = {
    async searchStudies(query): Promise<Attributes[]> {
      asked.push(`studies ${JSON.stringify(query)}`);
      return [
        { StudyInstanceUID: '1.1', PatientID: 'P1', StudyDate: '20240105', StudyDescription: 'S' },
        { StudyInstanceUID: '1.2', PatientID: 'P2', StudyDate: '20240320' },
      ];
    },
    async searchSeries(study, query, fields): Promise<Attributes[]> {
      asked.push(`series ${study} ${JSON.stringify(query)} ${(fields ?? []).includes('00201209')}`);
      return [{ SeriesInstanceUID: `${study}.9`, Modality: 'CT', SeriesNumber: 2, NumberOfSeriesRelatedInstances: 32 }];
    },
  };
  const found = await searchArchive(archive, { Modality: 'CT' }, false);
  assert.deepEqual(asked, [
    'studies {"ModalitiesInStudy":"CT"}',
    'series 1.1 {"Modality":"CT"} true',
    'series 1.2 {"Modality":"CT"} true',
  ]);
  assert.equal(found.length, 2);
  assert.equal(found[0]!.instances, 32);
  assert.deepEqual(
    [found[0]!.keywords.PatientID, found[0]!.keywords.StudyDate, found[0]!.keywords.SeriesInstanceUID],
    ['P1', '20240105', '1.1.9'],
  );
  // Every case keyword is there, empty when neither level said it.
  assert.equal(found[1]!.keywords.StudyDescription, '');
  assert.equal(found[1]!.keywords.Rows, '');
  // A study case holds all its series: series-level conditions are not sent.
  asked.length = 0;
  await searchArchive(archive, { Modality: 'CT' }, true);
  assert.match(asked[1]!, /^series 1\.1 \{\} /);
});

test('a date keyword matches a range, open at either end, both ends included', () => {
  const on = (StudyDate: string, range: string): boolean => matchesWhere({ StudyDate }, { StudyDate: range });
  assert.ok(on('20240101', '20240101-20241231'));
  assert.ok(on('20241231', '20240101-20241231'));
  assert.ok(!on('20250101', '20240101-20241231'));
  assert.ok(on('20250101', '20240101-'));
  assert.ok(!on('20231231', '20240101-'));
  assert.ok(on('20231231', '-20240101'));
  assert.ok(!on('', '20240101-20241231'), 'no date matches no range');
  // A range on any other keyword is text like any other.
  assert.ok(!matchesWhere({ StudyDescription: '20240105' }, { StudyDescription: '20240101-20241231' }));
});
