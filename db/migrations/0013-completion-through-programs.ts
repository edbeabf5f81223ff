import type { MigrationFn } from '#db/migration.ts'

// Completion per course counts every learner the course is assigned to, as My Courses lists it: directly
// (course_assignments) or through a program (program_assignments × program_courses), each learner once
// whichever ways and however many programs. Migration 0009 counted direct assignments only.
//
// course_completion_tallies.assigned now means "has the course by any way". Triggers keep it on the three
// tables that grant a course:
//   course_assignments   a learner and course; a program assignment  the learner and each course of the
//   program; a program's course  the course and each learner assigned the program.
// A grant sets `assigned`; taking one away sets it to what is left (course_has_learner, asked again).
// Both always write the tally row, even when it does not change: two transactions that take away the
// two ways a learner has a course then queue on that row, and the second one, once the first has
// committed, asks again (the function is plpgsql and VOLATILE, so its queries see that commit) instead
// of both seeing the other way still there. The counts follow from the tallies as before (0009's trigger
// on the tallies moves them by what a row's `assigned` adds or takes away).
//
// A program deleted takes its courses and its assignments with it by two cascades, whose row triggers
// fire only once both are gone and so find nothing: a trigger before the program's deletion takes its
// courses away from its learners while both are still there.
export const up: MigrationFn = async ({ context: sql }) => {
  await sql(`
    -- p_without: a program being deleted, which no longer counts
    CREATE FUNCTION course_has_learner(p_user uuid, p_course uuid, p_without uuid DEFAULT NULL)
      RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
      RETURN EXISTS (SELECT 1 FROM course_assignments a WHERE a.user_id = p_user AND a.course_id = p_course)
          OR EXISTS (SELECT 1 FROM program_assignments pa
                       JOIN program_courses pc ON pc.program_id = pa.program_id
                      WHERE pa.user_id = p_user AND pc.course_id = p_course
                        AND pa.program_id IS DISTINCT FROM p_without);
    END $$;

    -- a direct assignment given, taken away, or moved
    CREATE OR REPLACE FUNCTION course_assignment_completion() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' THEN
        UPDATE course_completion_tallies SET assigned = course_has_learner(OLD.user_id, OLD.course_id)
         WHERE user_id = OLD.user_id AND course_id = OLD.course_id;
      END IF;
      IF TG_OP <> 'DELETE' THEN
        INSERT INTO course_completion_tallies AS t (user_id, course_id, assigned) VALUES (NEW.user_id, NEW.course_id, true)
        ON CONFLICT (user_id, course_id) DO UPDATE SET assigned = true;
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER course_assignment_completion_moved AFTER UPDATE OF user_id, course_id ON course_assignments
      FOR EACH ROW WHEN ((OLD.user_id, OLD.course_id) IS DISTINCT FROM (NEW.user_id, NEW.course_id))
      EXECUTE FUNCTION course_assignment_completion();

    -- a program assigned to a learner, or no longer: every course of the program
    CREATE FUNCTION program_assignment_completion() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' THEN
        UPDATE course_completion_tallies t SET assigned = course_has_learner(t.user_id, t.course_id)
          FROM program_courses pc
         WHERE pc.program_id = OLD.program_id AND t.user_id = OLD.user_id AND t.course_id = pc.course_id;
      END IF;
      IF TG_OP <> 'DELETE' THEN
        INSERT INTO course_completion_tallies AS t (user_id, course_id, assigned)
        SELECT NEW.user_id, pc.course_id, true FROM program_courses pc WHERE pc.program_id = NEW.program_id
        ON CONFLICT (user_id, course_id) DO UPDATE SET assigned = true;
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER program_assignment_completion AFTER INSERT OR DELETE ON program_assignments
      FOR EACH ROW EXECUTE FUNCTION program_assignment_completion();
    CREATE TRIGGER program_assignment_completion_moved AFTER UPDATE OF user_id, program_id ON program_assignments
      FOR EACH ROW WHEN ((OLD.user_id, OLD.program_id) IS DISTINCT FROM (NEW.user_id, NEW.program_id))
      EXECUTE FUNCTION program_assignment_completion();

    -- a course added to a program, or taken out of it: every learner assigned the program
    CREATE FUNCTION program_course_completion() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' THEN
        UPDATE course_completion_tallies t SET assigned = course_has_learner(t.user_id, t.course_id)
          FROM program_assignments pa
         WHERE pa.program_id = OLD.program_id AND t.user_id = pa.user_id AND t.course_id = OLD.course_id;
      END IF;
      IF TG_OP <> 'DELETE' THEN
        INSERT INTO course_completion_tallies AS t (user_id, course_id, assigned)
        SELECT pa.user_id, NEW.course_id, true FROM program_assignments pa WHERE pa.program_id = NEW.program_id
        ON CONFLICT (user_id, course_id) DO UPDATE SET assigned = true;
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER program_course_completion AFTER INSERT OR DELETE ON program_courses
      FOR EACH ROW EXECUTE FUNCTION program_course_completion();
    -- reordering a program (its positions) is no change of who has which course
    CREATE TRIGGER program_course_completion_moved AFTER UPDATE OF program_id, course_id ON program_courses
      FOR EACH ROW WHEN ((OLD.program_id, OLD.course_id) IS DISTINCT FROM (NEW.program_id, NEW.course_id))
      EXECUTE FUNCTION program_course_completion();

    -- a program deleted: its courses and its assignments go by cascades whose triggers fire only once
    -- both are gone, when neither can find the other any more; so the learners lose its courses here,
    -- before anything goes
    CREATE FUNCTION program_deletion_completion() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE course_completion_tallies t SET assigned = course_has_learner(t.user_id, t.course_id, OLD.id)
        FROM program_assignments pa JOIN program_courses pc ON pc.program_id = pa.program_id
       WHERE pa.program_id = OLD.id AND t.user_id = pa.user_id AND t.course_id = pc.course_id;
      RETURN OLD;
    END $$;
    CREATE TRIGGER program_deletion_completion BEFORE DELETE ON programs
      FOR EACH ROW EXECUTE FUNCTION program_deletion_completion();

    -- the courses learners already have through programs, then every course counted again
    ALTER TABLE course_completion_tallies DISABLE TRIGGER course_completion_tally_changed;
    INSERT INTO course_completion_tallies AS t (user_id, course_id, assigned)
    SELECT DISTINCT pa.user_id, pc.course_id, true
      FROM program_assignments pa JOIN program_courses pc ON pc.program_id = pa.program_id
    ON CONFLICT (user_id, course_id) DO UPDATE SET assigned = true WHERE NOT t.assigned;
    ALTER TABLE course_completion_tallies ENABLE TRIGGER course_completion_tally_changed;
    SELECT recount_course_completion(id) FROM courses;
  `)
}

export const down: MigrationFn = async ({ context: sql }) => {
  await sql(`
    DROP TRIGGER IF EXISTS program_deletion_completion ON programs;
    DROP TRIGGER IF EXISTS program_course_completion_moved ON program_courses;
    DROP TRIGGER IF EXISTS program_course_completion ON program_courses;
    DROP TRIGGER IF EXISTS program_assignment_completion_moved ON program_assignments;
    DROP TRIGGER IF EXISTS program_assignment_completion ON program_assignments;
    DROP TRIGGER IF EXISTS course_assignment_completion_moved ON course_assignments;
    DROP FUNCTION IF EXISTS program_deletion_completion(), program_course_completion(),
      program_assignment_completion();
    CREATE OR REPLACE FUNCTION course_assignment_completion() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO course_completion_tallies AS t (user_id, course_id, assigned) VALUES (NEW.user_id, NEW.course_id, true)
        ON CONFLICT (user_id, course_id) DO UPDATE SET assigned = true;
      ELSE
        UPDATE course_completion_tallies SET assigned = false WHERE user_id = OLD.user_id AND course_id = OLD.course_id;
      END IF;
      RETURN NULL;
    END $$;
    DROP FUNCTION IF EXISTS course_has_learner(uuid, uuid, uuid);
    ALTER TABLE course_completion_tallies DISABLE TRIGGER course_completion_tally_changed;
    UPDATE course_completion_tallies t SET assigned = EXISTS (
      SELECT 1 FROM course_assignments a WHERE a.user_id = t.user_id AND a.course_id = t.course_id)
     WHERE t.assigned;
    ALTER TABLE course_completion_tallies ENABLE TRIGGER course_completion_tally_changed;
    SELECT recount_course_completion(id) FROM courses;
  `)
}
